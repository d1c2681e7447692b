package io.shardgate.router.pool;

/**
 * What makes two backend connections interchangeable: the capability flags that shape responses
 * (CLIENT_DEPRECATE_EOF, CLIENT_SESSION_TRACK, CLIENT_MULTI_STATEMENTS...), the character set
 * announced at login, and whether a schema is selected (MySQL cannot unselect one).
 *
 * @param capabilities result-format capability flags, as the client negotiated them
 * @param mariaDbCapabilities MariaDB extended capabilities the client negotiated
 * @param characterSet collation id of the login
 * @param schema the schema to select when opening a new connection (null: none); connections with
 *     any schema selected can serve any session that has one, after COM_INIT_DB
 */
public record ConnectionKind(int capabilities, int mariaDbCapabilities, int characterSet, String schema) {
    /** The same kind, opening new connections with {@code newSchema} selected. */
    public ConnectionKind withSchema(String newSchema) {
        return java.util.Objects.equals(schema, newSchema)
                ? this
                : new ConnectionKind(capabilities, mariaDbCapabilities, characterSet, newSchema);
    }

    /**
     * The kind of a connection of this kind whose server session now has {@code selectedSchema}
     * selected (a client's USE or COM_INIT_DB): MySQL cannot unselect a schema, so a connection
     * opened without one that got one serves only sessions that have one.
     */
    public ConnectionKind selected(String selectedSchema) {
        return schema == null && selectedSchema != null ? withSchema(selectedSchema) : this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionKind k
                && k.capabilities == capabilities
                && k.mariaDbCapabilities == mariaDbCapabilities
                && k.characterSet == characterSet
                && (k.schema == null) == (schema == null);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * capabilities + mariaDbCapabilities) + characterSet) + (schema == null ? 0 : 1);
    }
}
