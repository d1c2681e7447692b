package io.shardgate.router.config;

import io.shardgate.router.tls.BackendTlsMode;
import io.shardgate.router.tls.BackendTlsSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A hostgroup's {@code tls} section as written in YAML: TLS from the router to the hostgroup's
 * servers. It only binds the keys; {@link #toSettings()} gives the connector's {@link
 * BackendTlsSettings}.
 *
 * @param mode {@code disabled} (default), {@code preferred}, {@code required}, {@code verify_ca}
 *     or {@code verify_identity}
 * @param ca PEM CA certificate(s) for the verify modes; none: the JDK's trust store
 * @param cert PEM client certificate (for accounts created {@code REQUIRE X509})
 * @param key PEM private key of {@code cert}
 */
public record BackendTlsConfig(String mode, String ca, String cert, String key) {
    public BackendTlsConfig {
        mode = mode == null ? BackendTlsMode.DISABLED.yamlName() : mode;
    }

    List<String> validate(String at) {
        List<String> problems = new ArrayList<>();
        if (BackendTlsMode.parse(mode).isEmpty()) {
            problems.add(at + ".tls.mode must be disabled, preferred, required, verify_ca or verify_identity, was '"
                    + mode + "'");
        }
        if ((cert == null) != (key == null)) {
            problems.add(at + ".tls: set both cert and key (a client certificate), or neither");
        }
        return problems;
    }

    /** The connector's settings; the section must be valid. Relative paths resolve against the working directory. */
    public BackendTlsSettings toSettings() {
        return new BackendTlsSettings(BackendTlsMode.parse(mode).orElseThrow(), path(ca), path(cert), path(key));
    }

    private static Path path(String file) {
        return file == null ? null : Path.of(file);
    }
}
