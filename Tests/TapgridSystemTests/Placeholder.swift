import Testing

@Test func placeholderTapgridSystemTests() {}
