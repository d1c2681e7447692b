package io.shardgate.router.session;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a client statement does to its session beyond its result: the session variables it sets
 * (replayable on another connection), the schema it selects, and the state it creates that pins
 * the session to its backend connection.
 *
 * @param variables session variables assigned, name (lower case) to the expression text, in order
 * @param schema schema selected by {@code USE}, or null
 * @param pins reasons to keep the backend connection after this statement
 * @param readsLastInsertId the statement calls LAST_INSERT_ID()
 * @param readsPreviousStatement the statement calls FOUND_ROWS() or ROW_COUNT(), which read the
 *     outcome of the session's previous statement ({@link PreviousStatement})
 * @param changesGlobals the statement assigns a GLOBAL variable ({@code SET GLOBAL}, {@code
 *     @@global.}, MySQL's {@code PERSIST}): connections opened before it copied the old value into
 *     their sessions, so the pool retires them ({@code BackendPool#globalsChanged})
 */
public record StatementEffects(
        Map<String, String> variables,
        String schema,
        Set<PinReason> pins,
        boolean readsLastInsertId,
        boolean readsPreviousStatement,
        boolean changesGlobals) {

    /** A statement without session effects (most of them). */
    public static final StatementEffects NONE = new StatementEffects(Map.of(), null, Set.of(), false, false);

    /** Effects of a statement that changes no GLOBAL variable. */
    public StatementEffects(
            Map<String, String> variables,
            String schema,
            Set<PinReason> pins,
            boolean readsLastInsertId,
            boolean readsPreviousStatement) {
        this(variables, schema, pins, readsLastInsertId, readsPreviousStatement, false);
    }

    public StatementEffects {
        variables = variables.isEmpty() ? Map.of() : new LinkedHashMap<>(variables);
        pins = pins.isEmpty() ? Set.of() : EnumSet.copyOf(pins);
    }

    public boolean isNone() {
        return variables.isEmpty()
                && schema == null
                && pins.isEmpty()
                && !readsLastInsertId
                && !readsPreviousStatement
                && !changesGlobals;
    }
}
