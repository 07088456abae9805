@preconcurrency import Glibc

/// Turns a broker's host name into a numeric address, so the event loop never waits on DNS:
/// the daemon calls this on a worker thread and hands the address to libmosquitto, whose own
/// lookup of a numeric address returns at once.
public enum NameResolution {
    /// The first address `host` resolves to, as text (`127.0.0.1`, `::1`); a numeric host comes
    /// back as it is. Blocks for as long as the resolver takes: never call it on the loop.
    /// The corresponding C functions are `getaddrinfo`, `getnameinfo` and `freeaddrinfo`.
    /// - Returns: the address, or why there is none (`gai_strerror`'s words, e.g. `Name or
    ///   service not known`).
    public static func resolve(_ host: String) -> Result<String, ResolutionError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(ResolutionError(host: host, reason: String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(list) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let named = getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
        guard named == 0 else { return .failure(ResolutionError(host: host, reason: String(cString: gai_strerror(named)))) }
        return .success(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}

/// A host name that did not resolve, with the resolver's reason.
public struct ResolutionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var reason: String
    public var description: String { "cannot resolve \(host): \(reason)" }
}
