package io.shardgate.router.pool;

/**
 * What makes two backend connections interchangeable: the capability flags that shape responses
 * (CLIENT_DEPRECATE_EOF, CLIENT_SESSION_TRACK, CLIENT_MULTI_STATEMENTS...), the character set
 * announced at login, and whether a schema is selected (MySQL cannot unselect one).
 *
 * @param capabilities result-format capability flags, as the client negotiated them
 * @param characterSet collation id of the login
 * @param schema the schema to select when opening a new connection (null: none); connections with
 *     any schema selected can serve any session that has one, after COM_INIT_DB
 */
public record ConnectionKind(int capabilities, int characterSet, String schema) {
    /** The same kind, opening new connections with {@code newSchema} selected. */
    public ConnectionKind withSchema(String newSchema) {
        return java.util.Objects.equals(schema, newSchema)
                ? this
                : new ConnectionKind(capabilities, characterSet, newSchema);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionKind k
                && k.capabilities == capabilities
                && k.characterSet == characterSet
                && (k.schema == null) == (schema == null);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * capabilities + characterSet) + (schema == null ? 0 : 1);
    }
}
