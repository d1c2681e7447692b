package io.shardgate.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AuthPluginsTest {
    @Test
    void findsPluginsByName() {
        assertThat(AuthPlugins.forName("mysql_native_password")).get().isInstanceOf(MySqlNativePassword.class);
        assertThat(AuthPlugins.forName("caching_sha2_password")).get().isInstanceOf(CachingSha2Password.class);
        assertThat(AuthPlugins.forName("mysql_clear_password")).isEmpty();
        assertThat(AuthPlugins.forName(null)).isEmpty();
        assertThat(AuthPlugins.forName("caching_sha2_password").get().name()).isEqualTo("caching_sha2_password");
    }

    @Test
    void storedCredentialRendersAndParses() {
        StoredCredential c = StoredCredential.fromPassword("secret");
        String text = c.render();
        assertThat(text)
                .isEqualTo("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7 "
                        + "sha2:3881219D087DD9C634373FD33DFA33A2CB6BFC6C520B64B8BB60EF2CEB534AE7");
        StoredCredential back = StoredCredential.parse(text);
        assertThat(back).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(back).isNotEqualTo(StoredCredential.fromPassword("Secret"));
        assertThat(back.nativeHash()).isEqualTo(c.nativeHash());
        assertThat(back.sha2Hash()).isEqualTo(c.sha2Hash());
        assertThat(StoredCredential.parse("").render()).isEmpty();
        assertThat(StoredCredential.fromPassword("").render()).isEmpty();
        assertThat(StoredCredential.parse("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7")
                        .sha2Hash())
                .isNull();
        assertThat(c.toString()).doesNotContain("14E6");
        assertThatThrownBy(() -> StoredCredential.fromNativeHash("14E65567"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredCredential.parse("md5:abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoredCredential(new byte[3], null)).isInstanceOf(IllegalArgumentException.class);
    }
}
