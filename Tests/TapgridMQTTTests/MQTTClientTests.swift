import Testing

import TapgridMQTT

/// The wrapper without a broker: the library starts, a client is made, and errors name the call.
@Suite(.serialized) struct MQTTClientTests {
    /// libmosquitto requires `mosquitto_lib_init` before the first client: the wrapper refuses
    /// one made without it, so a program that forgot to call it fails at once, not subtly.
    @Test func noClientBeforeTheLibraryIsInitialized() throws {
        MQTTLibrary.cleanup()
        #expect(!MQTTLibrary.isInitialized)
        #expect(throws: MQTTError("mosquitto_lib_init", code: 10)) { _ = try MQTTClient(id: "tapgrid-test") }
        try MQTTLibrary.initialize()
        try MQTTLibrary.initialize()  // once per process: a second call does nothing
        #expect(MQTTLibrary.isInitialized)
        _ = try MQTTClient(id: "tapgrid-test")
        MQTTLibrary.cleanup()
    }

    @Test func aClientWithoutAConnection() throws {
        try MQTTLibrary.initialize()
        defer { MQTTLibrary.cleanup() }
        #expect(MQTTLibrary.version.hasPrefix("2."))
        let client = try MQTTClient(id: "tapgrid-test")
        try client.useMQTT5()
        try client.setWill(topic: "tapgrid/t/availability", payload: Array("offline".utf8), qos: 1, retain: true)
        #expect(client.socket == nil)
        #expect(!client.wantWrite)
        #expect(throws: MQTTError("mosquitto_loop_read", code: 4)) { try client.loopRead() }
        #expect(MQTTError("mosquitto_loop_read", code: 4).description == "mosquitto_loop_read: The client is not currently connected.")
        #expect(MQTTError("mosquitto_loop_read", code: 4).isNotConnected)
        // libmosquitto reports a read without a connection through its disconnect callback too.
        #expect(client.takeEvents() == [.disconnected(code: 4)])
        #expect(client.takeEvents().isEmpty)
    }
}
