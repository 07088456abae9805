import TapgridSystem

/// A libinput or libudev call that failed: the C function, the error number when it gave one,
/// and what was being done.
///
/// libinput reports failure in several ways (`NULL` from a constructor, `-1`, or `-errno` from
/// `libinput_dispatch`); the wrappers turn each into this. `description` reads like
/// `libinput_dispatch: No such device (errno 19)` or
/// `libinput_udev_assign_seat: cannot read the devices of seat "seat9"`.
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function that failed, e.g. `"libinput_path_create_context"`.
    public let function: String
    /// The error number, when the function reported one.
    public let errno: Errno?
    /// What went wrong in words; replaces the `strerror` text in `description` when given.
    public let detail: String?

    public init(_ function: String, _ errno: Errno? = nil, detail: String? = nil) {
        self.function = function
        self.errno = errno
        self.detail = detail
    }

    /// `<function>: <detail, else strerror (errno N)>`.
    public var description: String {
        function + ": " + (detail ?? errno?.description ?? "failed")
    }
}
