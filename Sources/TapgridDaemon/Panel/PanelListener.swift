import TapgridCore
import TapgridSystem
import TapgridSystemd

/// The browser panel's listening socket: the one systemd passed named `panel`, else one bound
/// for `panel.listen` (TCP, or a Unix socket file, mode 0660, for a reverse proxy).
struct PanelListener: ~Copyable {
    var socket: OwnedFD
    /// `http://127.0.0.1:8480/`, the socket's path, or which passed socket.
    var address: String
    /// A socket file we made (removed at stop).
    var socketPath: String?

    /// The listener, or nil with an error logged that says why: the panel is then off and the
    /// Unix socket keeps serving (a busy port must not take the daemon's taps down).
    static func open(_ settings: PanelConfig, passed: PassedDescriptor?, log: LogSink) -> PanelListener? {
        do throws(SystemError) {
            if let passed {
                let socket = try UnixSocket.adoptListener(passed.fd)
                TCPSocketOptions.noDelay(socket.rawValue)  // ignored when it is a Unix socket
                return PanelListener(socket: socket, address: "the socket systemd passed (panel)")
            }
            switch settings.listen {
            case .tcp(let host, let port):
                let socket = try TCPListener.listen(host: host, port: port)
                let bound = NetworkAddress.tcp(host: host, port: TCPListener.boundPort(socket.rawValue) ?? port)
                return PanelListener(socket: socket, address: "http://\(bound.text)/")
            case .unix(let path):
                return PanelListener(socket: try UnixSocket.listen(path: path, mode: 0o660, backlog: 128), address: path, socketPath: path)
            }
        } catch {
            log.error("panel: \(error); the panel is off")
            return nil
        }
    }
}
