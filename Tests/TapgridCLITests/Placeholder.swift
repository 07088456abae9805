import Testing

@Test func placeholderTapgridCLITests() {}
