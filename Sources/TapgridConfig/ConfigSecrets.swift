import TapgridArguments
import TapgridCore

/// The secrets a config names (`mqtt.passwordFile`, `panel.tokenFile`), read as the daemon uses
/// them: once, with `tapgrid check`'s rules (running as root, a file its group or others may read
/// is refused). A daemon never starts, nor reloads, with a secret it was told to use and could not.
public struct ConfigSecrets: Sendable, Equatable {
    /// `mqtt.passwordFile`'s first line; nil without the key.
    public var mqttPassword: String?
    /// `panel.tokenFile`'s first line; nil without the key.
    public var panelToken: String?

    public init(mqttPassword: String? = nil, panelToken: String? = nil) {
        self.mqttPassword = mqttPassword
        self.panelToken = panelToken
    }
}

extension ConfigLoader {
    /// Loads the config as the daemon does, at start and at every reload: `load`'s diagnostics,
    /// plus an error (naming the config file, the key, the file and why, as `tapgrid check`
    /// says it) for each secret file that cannot be used, and the secrets read.
    public static func loadForDaemon(
        path: String, missingDefaultHint: String = DefaultPaths.missingConfigHint(.configOption)
    ) -> (config: Config?, secrets: ConfigSecrets, diagnostics: Diagnostics) {
        var (config, diagnostics) = load(path: path, missingDefaultHint: missingDefaultHint)
        guard let loaded = config, !diagnostics.hasErrors else { return (config, ConfigSecrets(), diagnostics) }
        let secrets = readSecrets(loaded, configPath: path, into: &diagnostics)
        if diagnostics.hasErrors { config = nil }
        return (config, secrets, diagnostics)
    }

    /// The secret files `config` names, read; each that cannot be is an error in `diagnostics`.
    public static func readSecrets(_ config: Config, configPath: String, into diagnostics: inout Diagnostics) -> ConfigSecrets {
        var secrets = ConfigSecrets()
        if let file = config.mqtt?.passwordFile {
            switch readPassword(file) {
            case .success(let password): secrets.mqttPassword = password
            case .failure(let problem): diagnostics.append(Diagnostic(.error, file: configPath, problem.text))
            }
        }
        if let file = config.panel?.tokenFile {
            switch readToken(file) {
            case .success(let token): secrets.panelToken = token
            case .failure(let problem): diagnostics.append(Diagnostic(.error, file: configPath, problem.text))
            }
        }
        return secrets
    }
}
