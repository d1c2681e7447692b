package io.shardgate.protocol.charset;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Locale;
import java.util.Map;

/**
 * The Java charset that decodes and encodes the bytes of a MySQL character set exactly, for the
 * character sets a client may use for its statements ({@code character_set_client}); null for the
 * few the JDK does not carry (armscii8, dec8, hp8, keybcs2, swe7, geostd8...) and for those a
 * client cannot use (ucs2, utf16, utf32).
 */
public final class MySqlCharsets {
    /** MySQL name to JDK name, where they differ and the mapping is byte-exact. */
    private static final Map<String, String> JDK_NAMES = Map.ofEntries(
            Map.entry("utf8mb4", "UTF-8"),
            Map.entry("utf8mb3", "UTF-8"),
            Map.entry("utf8", "UTF-8"),
            Map.entry("ascii", "US-ASCII"),
            Map.entry("binary", "ISO-8859-1"), // bytes as they are
            Map.entry("latin2", "ISO-8859-2"),
            Map.entry("latin5", "ISO-8859-9"),
            Map.entry("latin7", "ISO-8859-13"),
            Map.entry("greek", "ISO-8859-7"),
            Map.entry("hebrew", "ISO-8859-8"),
            Map.entry("cp1250", "windows-1250"),
            Map.entry("cp1251", "windows-1251"),
            Map.entry("cp1256", "windows-1256"),
            Map.entry("cp1257", "windows-1257"),
            Map.entry("cp850", "IBM850"),
            Map.entry("cp852", "IBM852"),
            Map.entry("cp866", "IBM866"),
            Map.entry("koi8r", "KOI8-R"),
            Map.entry("koi8u", "KOI8-U"),
            Map.entry("tis620", "TIS-620"),
            Map.entry("macroman", "x-MacRoman"),
            Map.entry("macce", "x-MacCentralEurope"),
            Map.entry("gbk", "GBK"),
            Map.entry("gb2312", "GB2312"),
            Map.entry("gb18030", "GB18030"),
            Map.entry("big5", "Big5"),
            Map.entry("sjis", "Shift_JIS"),
            Map.entry("cp932", "windows-31j"),
            Map.entry("ujis", "EUC-JP"),
            Map.entry("euckr", "EUC-KR"));

    private MySqlCharsets() {}

    /** The charset for MySQL character set {@code name} (any case), or null when there is none. */
    public static Charset forName(String name) {
        if (name == null) {
            return null;
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.equals("latin1")) {
            return MySqlLatin1.INSTANCE;
        }
        if (n.equals("utf8mb4") || n.equals("utf8mb3") || n.equals("utf8")) {
            return StandardCharsets.UTF_8;
        }
        String jdk = JDK_NAMES.get(n);
        if (jdk == null) {
            return null;
        }
        try {
            return Charset.forName(jdk);
        } catch (UnsupportedCharsetException e) {
            return null; // a JDK without the extended charsets
        }
    }
}
