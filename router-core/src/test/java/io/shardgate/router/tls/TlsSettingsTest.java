package io.shardgate.router.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlsSettingsTest {
    @Test
    void defaultsOfferTlsWithGeneratedCertificateAndModernProtocols() {
        TlsSettings settings = TlsSettings.defaults();

        assertThat(settings.enabled()).isTrue();
        assertThat(settings.certFile()).isNull();
        assertThat(settings.keyFile()).isNull();
        assertThat(settings.protocols()).containsExactly("TLSv1.2", "TLSv1.3");
    }

    @Test
    void certificateWithoutKeyIsRefused() {
        assertThatThrownBy(() -> new TlsSettings(true, Path.of("cert.pem"), null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set both the certificate and the key file, or neither");
        assertThatThrownBy(() -> new TlsSettings(true, null, Path.of("key.pem"), null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void protocolsAreCopiedAndMustNotBeEmpty() {
        List<String> protocols = new ArrayList<>(List.of("TLSv1.3"));
        TlsSettings settings = new TlsSettings(true, null, null, protocols);
        protocols.add("TLSv1.2");

        assertThat(settings.protocols()).containsExactly("TLSv1.3");
        assertThatThrownBy(() -> new TlsSettings(true, null, null, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one version");
    }
}
