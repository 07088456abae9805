/// A grid's `slider` key (docs/touch.md "Sliders").
extension GridParser {
    static let sliderKeys = ["min", "max", "step", "vertical", "changeMs"]

    /// Reads `"slider": {"min", "max", "step", "vertical", "changeMs"}`; nil (with errors) when
    /// it is not a slider.
    mutating func readSlider(_ value: JSONValue, node: Int) -> SliderSpec? {
        guard case .object(let members) = value else {
            error(node, "\"slider\": expected an object such as {\"min\": 0, \"max\": 100, \"step\": 1}, found \(value.typeDescription)")
            return nil
        }
        for member in members where !Self.sliderKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: Self.sliderKeys)
            warning(node, "\"slider\": unknown key \(jsonEscaped(member.key)) ignored\(hintOrList(hint, "use min, max, step, vertical or changeMs"))")
        }
        var ok = true
        func number(_ key: String, expected: String, valid: (Double) -> Bool = { _ in true }) -> Double? {
            guard let found = value[key] else {
                error(node, "\"slider\".\(key): missing; expected \(expected)")
                ok = false
                return nil
            }
            guard case .number(let number) = found, number.double.isFinite, valid(number.double) else {
                error(node, "\"slider\".\(key): expected \(expected), found \(shown(found))")
                ok = false
                return nil
            }
            return number.double
        }
        let min = number("min", expected: "a finite number")
        let max = number("max", expected: "a finite number")
        let step = number("step", expected: "a finite number > 0", valid: { $0 > 0 })
        var spec = SliderSpec(min: 0, max: 1, step: 1)
        if let vertical = value["vertical"] {
            if case .bool(let flag) = vertical {
                spec.vertical = flag
            } else {
                error(node, "\"slider\".vertical: expected true or false, found \(shown(vertical))")
                ok = false
            }
        }
        if value["changeMs"] != nil {
            let expected = "a whole number of milliseconds from 0 to 3600000"
            if let ms = number("changeMs", expected: expected, valid: { $0 >= 0 && $0 <= 3_600_000 && $0.rounded() == $0 }) {
                spec.changeMs = Int(ms)
            }
        }
        guard ok, let min, let max, let step else { return nil }
        guard min < max else {
            error(node, "\"slider\": min \(formatNumber(min)) is not below max \(formatNumber(max)); expected min < max")
            return nil
        }
        guard (max - min).isFinite, (max - min) / step <= 1e15 else {
            error(node, "\"slider\": \(formatNumber(max - min)) from min to max is more than 10^15 steps of \(formatNumber(step)); use a larger step")
            return nil
        }
        spec.min = min
        spec.max = max
        spec.step = step
        if spec.highestValue < max {
            warning(node, "\"slider\": max \(formatNumber(max)) is not min \(formatNumber(min)) plus a whole number of steps of \(formatNumber(step)); the highest value is \(formatNumber(spec.highestValue))")
        }
        return spec
    }
}
