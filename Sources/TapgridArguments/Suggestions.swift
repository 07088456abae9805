// "Did you mean" hints for mistyped subcommands and options.

/// The candidate `word` was most likely meant as, or nil when none is close enough.
///
/// Close means: a unique candidate that `word` (at least 2 characters) is a prefix of
/// (`rep` -> `replay`), else the nearest candidate by edit distance counting a swap of two
/// neighbouring characters as one edit (`stauts` -> `status`), at most 1 edit for words of up to
/// 4 characters and 2 for longer ones. Ties go to the candidate listed first.
func closestMatch(to word: String, among candidates: [String]) -> String? {
    guard !word.isEmpty else { return nil }
    if word.count >= 2 {
        let prefixed = candidates.filter { $0.hasPrefix(word) && $0 != word }
        if prefixed.count == 1 { return prefixed[0] }
    }
    let limit = word.count <= 4 ? 1 : 2
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let distance = swapAwareEditDistance(word, candidate)
        if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
    }
    return best?.candidate
}

/// Levenshtein distance where swapping two neighbouring characters also counts as one edit
/// (the "optimal string alignment" distance).
func swapAwareEditDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
            }
        }
    }
    return table[a.count][b.count]
}

/// `'a'`, `'a' and 'b'`, `'a', 'b' or 'c'`: a list as the usage errors quote values.
func quotedList(_ items: [String], lastJoiner: String) -> String {
    let quoted = items.map { "'\($0)'" }
    guard quoted.count > 1 else { return quoted.first ?? "" }
    return quoted.dropLast().joined(separator: ", ") + " \(lastJoiner) " + quoted[quoted.count - 1]
}
