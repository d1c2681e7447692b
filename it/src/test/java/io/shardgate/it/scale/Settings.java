package io.shardgate.it.scale;

/**
 * The fleet-scale benchmark's settings, from system properties {@code fleet.<name>} (defaults: the
 * issue's shape on a 2-core machine).
 *
 * @param routers routers on the ensemble with the big configuration
 * @param hostgroups hostgroups of the configuration
 * @param tables tables wanted (the fleet runs the largest count up to this that the store accepts)
 * @param servers real MariaDB servers behind the hostgroups (round-robin)
 * @param pool {@code pool.max_connections} of every hostgroup but the unmultiplexed one
 * @param clients client sessions per router and per load (multiplexed, unmultiplexed)
 * @param changes rule changes timed
 * @param pauseMillis pause between two changes
 * @param idleSeconds idle time over which the ensemble's background traffic is measured
 * @param plans distinct statements planned on one router for the plan cache's heap
 * @param baseRouters routers started with a two-table configuration for the heap without rules
 * @param steps router counts of the connection measurement, comma-separated
 * @param stepSeconds seconds of load measured per step (after as many of warm-up)
 * @param sleepMillis each client statement's {@code SLEEP}, to hold a backend connection
 * @param out the report's path
 */
record Settings(
        int routers,
        int hostgroups,
        int tables,
        int servers,
        int pool,
        int clients,
        int changes,
        int pauseMillis,
        int idleSeconds,
        int plans,
        int baseRouters,
        String steps,
        int stepSeconds,
        int sleepMillis,
        String out) {

    static Settings fromSystemProperties() {
        return new Settings(
                Integer.getInteger("fleet.routers", 20),
                Integer.getInteger("fleet.hostgroups", 1000),
                Integer.getInteger("fleet.tables", 10_000),
                Integer.getInteger("fleet.servers", 2),
                Integer.getInteger("fleet.pool", 4),
                Integer.getInteger("fleet.clients", 8),
                Integer.getInteger("fleet.changes", 30),
                Integer.getInteger("fleet.pauseMillis", 300),
                Integer.getInteger("fleet.idleSeconds", 10),
                Integer.getInteger("fleet.plans", 2000),
                Integer.getInteger("fleet.baseRouters", 3),
                System.getProperty("fleet.steps", "1,5,10,20"),
                Integer.getInteger("fleet.stepSeconds", 5),
                Integer.getInteger("fleet.sleepMillis", 100),
                System.getProperty("fleet.out", "target/fleet-scale.md"));
    }

    /** The property names and values, for the report's command line. */
    String describe() {
        return String.format(
                "-Dfleet.routers=%d -Dfleet.hostgroups=%d -Dfleet.tables=%d -Dfleet.servers=%d -Dfleet.pool=%d"
                        + " -Dfleet.clients=%d -Dfleet.changes=%d -Dfleet.pauseMillis=%d -Dfleet.idleSeconds=%d"
                        + " -Dfleet.plans=%d -Dfleet.baseRouters=%d -Dfleet.steps=%s -Dfleet.stepSeconds=%d"
                        + " -Dfleet.sleepMillis=%d",
                routers,
                hostgroups,
                tables,
                servers,
                pool,
                clients,
                changes,
                pauseMillis,
                idleSeconds,
                plans,
                baseRouters,
                steps,
                stepSeconds,
                sleepMillis);
    }
}
