import Testing

@Test func placeholderTapgridCoreTests() {}
