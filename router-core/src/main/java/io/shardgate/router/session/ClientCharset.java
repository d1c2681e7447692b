package io.shardgate.router.session;

import io.shardgate.protocol.charset.MySqlCharsets;
import io.shardgate.protocol.type.Collations;
import java.nio.charset.Charset;
import java.util.Locale;
import java.util.Map;

/**
 * The character set a client's statements are written in ({@code character_set_client}): the one
 * of its handshake collation, until a replayed {@code SET NAMES}, {@code SET CHARACTER SET} or
 * {@code SET character_set_client} says otherwise. The router decodes statement text with it to
 * route by its literals, and encodes the SQL it renders for the shards with it, since the backend
 * connections speak the client's character set. Null when it is not known or has no exact Java
 * charset (then only statements of ASCII text can be read; see {@link #readable}).
 */
public final class ClientCharset {
    private ClientCharset() {}

    /**
     * @param handshakeCollation the collation id of the client's handshake (or COM_CHANGE_USER)
     * @param fragments the session's replayed assignments, in order (see {@link SessionVariables})
     */
    public static Charset of(int handshakeCollation, Map<String, String> fragments) {
        String name = Collations.charsetOf(handshakeCollation);
        for (Map.Entry<String, String> e : fragments.entrySet()) {
            String value = switch (e.getKey()) {
                case "names" -> afterWords(e.getValue(), 1); // NAMES x [COLLATE y]
                case "character set" ->
                    afterWords(e.getValue(), e.getValue().regionMatches(true, 0, "CHARSET", 0, 7) ? 1 : 2);
                case "character_set_client" ->
                    e.getValue().substring(e.getValue().indexOf('=') + 1);
                default -> null;
            };
            if (value != null) {
                name = charsetName(value);
            }
        }
        return name == null ? null : MySqlCharsets.forName(name);
    }

    /** Whether a statement's bytes can be read without knowing the character set: ASCII only. */
    public static boolean readable(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /** The text after the first {@code words} words of {@code fragment}. */
    private static String afterWords(String fragment, int words) {
        String rest = fragment.trim();
        for (int i = 0; i < words; i++) {
            int space = firstSpace(rest);
            rest = space < 0 ? "" : rest.substring(space).trim();
        }
        return rest;
    }

    private static int firstSpace(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isWhitespace(s.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The character set named by a SET value ({@code latin1}, {@code 'latin1'}, {@code latin1 COLLATE x}); null for DEFAULT or an expression. */
    private static String charsetName(String value) {
        String v = value.trim();
        if (v.endsWith(";")) {
            v = v.substring(0, v.length() - 1).trim();
        }
        int space = firstSpace(v);
        if (space > 0) {
            v = v.substring(0, space);
        }
        if (v.length() >= 2
                && (v.charAt(0) == '\'' || v.charAt(0) == '"' || v.charAt(0) == '`')
                && v.charAt(v.length() - 1) == v.charAt(0)) {
            v = v.substring(1, v.length() - 1);
        }
        v = v.toLowerCase(Locale.ROOT);
        return v.isEmpty() || v.equals("default") || !v.matches("[a-z0-9_]+") ? null : v;
    }
}
