package io.shardgate.it.docs;

import io.shardgate.it.Repository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reference tables of a page under docs/: rows whose first cell is one backticked name,
 * {@code | `server.port` | `6033` | meaning |}, read as name -> the row's remaining cells.
 */
record ReferenceTable(String page, Map<String, String[]> rows) {
    private static final Pattern ROW = Pattern.compile("(?m)^\\| `([^`]+)` \\|(.*)\\|\\s*$");

    static ReferenceTable of(String page) {
        String text;
        try {
            text = Files.readString(Repository.file("docs/" + page));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String[]> rows = new LinkedHashMap<>();
        Matcher m = ROW.matcher(text);
        while (m.find()) {
            String[] cells = m.group(2).split("\\|");
            for (int i = 0; i < cells.length; i++) {
                cells[i] = cells[i].strip();
            }
            if (rows.put(m.group(1), cells) != null) {
                throw new AssertionError("docs/" + page + " documents " + m.group(1) + " twice");
            }
        }
        return new ReferenceTable(page, rows);
    }

    /** The first backticked token of a row's {@code column}-th remaining cell, or null. */
    String firstLiteral(String name, int column) {
        Matcher m = Pattern.compile("`([^`]*)`").matcher(rows.get(name)[column]);
        return m.find() ? m.group(1) : null;
    }
}
