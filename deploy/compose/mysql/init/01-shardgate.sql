-- Runs once, when a shard's data directory is created (docker-entrypoint-initdb.d of mysql:8.4).
-- The same script on every shard (mysql1..mysql4): the database sysbench uses and the account the
-- routers log in with (hostgroups[].user/password in ../router/router1.yaml and router2.yaml), and the account
-- mysql1-replica replicates with. Portable MySQL 8.4 / MariaDB syntax: ComposeClusterIT runs it
-- on local MariaDB servers.
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'shardgate'@'%' IDENTIFIED BY 'sg-secret';
GRANT ALL PRIVILEGES ON sbtest.* TO 'shardgate'@'%';
CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY 'repl-secret';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';
