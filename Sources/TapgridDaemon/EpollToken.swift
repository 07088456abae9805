/// The 64-bit value registered with each epoll descriptor.
///
/// Layout: the top byte is the kind, bits 32..55 a 24-bit generation, bits 0..31 a slot index.
/// fd numbers are reused right after `close`, so an event still queued for a closed client must
/// not reach whoever got its slot next: the generation is bumped each time a slot is freed and an
/// event whose generation does not match the slot's current one is dropped. Kinds 0x10...0x1F
/// belong to the child supervisor, which packs its own low bits.
enum EpollToken {
    static let listener: UInt8 = 0x01
    static let client: UInt8 = 0x02
    static let signals: UInt8 = 0x03
    static let wakeup: UInt8 = 0x04
    static let timer: UInt8 = 0x05
    /// Kinds owned by `ChildSupervisor`.
    static let supervisorKinds: ClosedRange<UInt8> = 0x10...0x1F

    @inline(__always)
    static func make(kind: UInt8, slot: Int = 0, generation: UInt32 = 0) -> UInt64 {
        UInt64(kind) << 56 | UInt64(generation & 0xFF_FFFF) << 32 | UInt64(UInt32(truncatingIfNeeded: slot))
    }

    @inline(__always) static func kind(_ data: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: data >> 56) }
    @inline(__always) static func slot(_ data: UInt64) -> Int { Int(UInt32(truncatingIfNeeded: data)) }
    @inline(__always) static func generation(_ data: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: data >> 32) & 0xFF_FFFF }
}
