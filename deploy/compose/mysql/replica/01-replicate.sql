-- Runs once, when mysql1-replica's data directory is created. The replica creates nothing itself:
-- with GTID auto-positioning it fetches every transaction of mysql1's binary log, including the
-- database and users of ../init/01-shardgate.sql. GET_SOURCE_PUBLIC_KEY: 'repl' uses
-- caching_sha2_password and the replication channel is not TLS.
CHANGE REPLICATION SOURCE TO
  SOURCE_HOST = 'mysql1',
  SOURCE_PORT = 3306,
  SOURCE_USER = 'repl',
  SOURCE_PASSWORD = 'repl-secret',
  SOURCE_AUTO_POSITION = 1,
  GET_SOURCE_PUBLIC_KEY = 1;
START REPLICA;
