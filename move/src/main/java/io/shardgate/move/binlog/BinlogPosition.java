package io.shardgate.move.binlog;

import java.util.Objects;

/**
 * A place in a server's binary log: the file ({@code mysql-bin.000042}) and the byte offset in it, as
 * {@code SHOW MASTER STATUS} and a replica's {@code CHANGE MASTER TO ... MASTER_LOG_POS} name it. A
 * move stores the position after the last transaction it applied and resumes from there.
 *
 * <p>Positions order by the file's sequence number (the digits after the last dot), then the offset.
 * Files of different base names belong to different log series (the server was restarted with
 * another {@code --log-bin}) and do not compare: that is an error, never a guess.
 */
public record BinlogPosition(String file, long position) implements Comparable<BinlogPosition> {

    public BinlogPosition {
        Objects.requireNonNull(file, "file");
        if (file.isEmpty() || file.indexOf(':') >= 0) {
            throw new IllegalArgumentException("not a binary log file name: '" + file + "'");
        }
        if (position < 0) {
            throw new IllegalArgumentException("negative binary log position " + position + " in " + file);
        }
        sequence(file); // validates the name
    }

    /** Parses {@code file:position}, as {@link #toString()} prints it. */
    public static BinlogPosition parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("not a binary log position (file:position): '" + text + "'");
        }
        long position;
        try {
            position = Long.parseLong(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a binary log position (file:position): '" + text + "'", e);
        }
        return new BinlogPosition(text.substring(0, colon), position);
    }

    /** The file's sequence number: {@code 42} for {@code mysql-bin.000042}. */
    public long sequence() {
        return sequence(file);
    }

    /** The file's base name: {@code mysql-bin} for {@code mysql-bin.000042}. */
    public String baseName() {
        return file.substring(0, file.lastIndexOf('.'));
    }

    @Override
    public int compareTo(BinlogPosition other) {
        if (!baseName().equals(other.baseName())) {
            throw new IllegalArgumentException(
                    "binary log positions of different log series do not compare: " + this + " and " + other);
        }
        int byFile = Long.compare(sequence(), other.sequence());
        return byFile != 0 ? byFile : Long.compare(position, other.position);
    }

    /** Whether this position is at or past {@code other}. */
    public boolean reached(BinlogPosition other) {
        return compareTo(other) >= 0;
    }

    /**
     * How many bytes of the log lie between this position and {@code ahead} (0 when this one is at
     * or past it); -1 when {@code ahead} is in a later file, where the sizes of the files between are
     * not known here.
     */
    public long bytesBefore(BinlogPosition ahead) {
        if (reached(ahead)) {
            return 0;
        }
        return sequence() == ahead.sequence() ? ahead.position - position : -1;
    }

    @Override
    public String toString() {
        return file + ":" + position;
    }

    private static long sequence(String file) {
        int dot = file.lastIndexOf('.');
        String digits = dot < 0 ? "" : file.substring(dot + 1);
        if (dot <= 0
                || digits.isEmpty()
                || !digits.chars().allMatch(c -> c >= '0' && c <= '9')
                || digits.length() > 18) {
            throw new IllegalArgumentException(
                    "not a binary log file name (base name, a dot, a sequence number): '" + file + "'");
        }
        return Long.parseLong(digits);
    }
}
