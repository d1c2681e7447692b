-- Transactions touching --shards shards, for two-phase.sh: BEGIN, one UPDATE of a random account
-- on each of the first --shards shards (account ids of shard k are k * 1000000 + 1..--accounts,
-- which the router's range rule places on hostgroup 10 * (k + 1)), COMMIT. Run it against the
-- best_effort and the two_phase schema (--mysql-db) of the same router.
--
--   sysbench benchmarks/sysbench/twophase_transfers.lua --shards=2 --accounts=1000 --mysql-db=tp ... run

sysbench.cmdline.options = {
   shards = {"Shards each transaction writes on (1..4)", 1},
   accounts = {"Accounts per shard", 1000},
}

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function thread_done()
   con:disconnect()
end

function event()
   con:query("BEGIN")
   for k = 0, sysbench.opt.shards - 1 do
      local id = k * 1000000 + sysbench.rand.uniform(1, sysbench.opt.accounts)
      con:query("UPDATE accounts SET balance = balance + 1 WHERE id = " .. id)
   end
   con:query("COMMIT")
end
