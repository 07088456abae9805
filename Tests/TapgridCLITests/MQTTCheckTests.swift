import Foundation
import Testing

@testable import TapgridCLI
import TapgridTestSupport

/// `tapgrid check` reads the files the `mqtt` block names.
@Suite struct MQTTCheckTests {
    static func config(_ mqtt: String) -> String {
        #"{"layouts": {"home": {"width": 10, "height": 10, "grid": {"name": "all"}}}, "mqtt": \#(mqtt)}"#
    }

    @Test func filesMustExist() throws {
        let dir = try folder(["tapgrid.json": Self.config(#"{"broker": "h:1883", "tls": {"caFile": "ca.pem"}}"#)])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out.contains("error: \(dir)/tapgrid.json: mqtt.tls.caFile: cannot read \(dir)/ca.pem: No such file or directory (errno 2)\n"))
    }

    @Test func readableFilesPass() throws {
        let dir = try folder([
            "tapgrid.json": Self.config(#"{"broker": "h:1883", "username": "u", "passwordFile": "pw", "tls": {"caFile": "ca.pem"}}"#),
            "pw": "secret\n", "ca.pem": "-----BEGIN CERTIFICATE-----\n",
        ])
        defer { removeTempDir(dir) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir + "/pw")
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 0)
        #expect(result.out.hasSuffix("\(dir)/tapgrid.json: 0 errors, 0 warnings\n"))
    }

    @Test(.enabled(if: getuid() == 0, "root's check of the password file"))
    func rootRefusesAPasswordOthersCanRead() throws {
        let dir = try folder(["tapgrid.json": Self.config(#"{"broker": "h:1883", "username": "u", "passwordFile": "pw"}"#), "pw": "secret\n"])
        defer { removeTempDir(dir) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/pw")
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out.contains("error: \(dir)/tapgrid.json: mqtt.passwordFile: cannot read \(dir)/pw: refused: it is readable by its group (mode 0644); running as root, tapgrid reads a password only root can read (chmod go-rwx \(dir)/pw)\n"))
    }
}
