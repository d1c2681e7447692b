package io.shardgate.it.differential;

import java.util.ArrayList;
import java.util.List;

/** A piece of generated SQL with {@code ?} placeholders and their values, in order. */
record Fragment(String text, List<Object> params) {
    Fragment {
        params = java.util.Collections.unmodifiableList(new ArrayList<>(params));
    }

    static Fragment of(String text) {
        return new Fragment(text, List.of());
    }

    /** {@code text} whose {@code ?} stand for {@code values} in order. */
    static Fragment of(String text, Object... values) {
        return new Fragment(text, java.util.Arrays.asList(values));
    }

    Fragment plus(Fragment other) {
        List<Object> all = new ArrayList<>(params);
        all.addAll(other.params);
        return new Fragment(text + other.text, all);
    }

    Fragment plus(String other) {
        return new Fragment(text + other, params);
    }

    /** The fragments joined by {@code separator}. */
    static Fragment join(String separator, List<Fragment> parts) {
        StringBuilder text = new StringBuilder();
        List<Object> all = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                text.append(separator);
            }
            text.append(parts.get(i).text);
            all.addAll(parts.get(i).params);
        }
        return new Fragment(text.toString(), all);
    }

    String literal() {
        return Literal.inline(text, params);
    }
}
