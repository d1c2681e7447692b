#!/usr/bin/env sysbench
-- Shardgate's scatter workload on the hash-sharded sysbench tables (sbtest5..8 in
-- ../router/router1.yaml, one binding group on id): each transaction sends statements that reach
-- every shard and are merged by the router, and one join of two binding-group tables.
--   sysbench scatter.lua --tables=8 --table-size=10000 --hash-tables=5,6,7,8 [mysql options] run
-- Text protocol; any error ends the run (sysbench's FATAL), so a refused statement cannot go unseen.

sysbench.cmdline.options = {
  table_size = {"Rows per table (ids 1..table_size)", 10000},
  tables = {"Number of sysbench tables (accepted for symmetry with oltp_*)", 8},
  hash_tables = {"Numbers of the tables hash-sharded on id, one binding group, comma-separated", "5,6,7,8"},
  range_size = {"Ids in each range", 100},
}

local hash_tables = {}

function thread_init()
  for n in string.gmatch(sysbench.opt.hash_tables, "%d+") do
    hash_tables[#hash_tables + 1] = tonumber(n)
  end
  if #hash_tables < 2 then
    error("--hash-tables needs at least two tables of one binding group")
  end
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function thread_done()
  con:disconnect()
end

local function pick()
  return hash_tables[sysbench.rand.uniform(1, #hash_tables)]
end

function event()
  local t = pick()
  local from = sysbench.rand.uniform(1, math.max(1, sysbench.opt.table_size - sysbench.opt.range_size))
  local to = from + sysbench.opt.range_size - 1
  -- aggregates over a range of ids: every shard, COUNT/SUM/MIN/MAX merged
  con:query(string.format(
    "SELECT COUNT(*), SUM(k), MIN(id), MAX(id) FROM sbtest%d WHERE id BETWEEN %d AND %d", t, from, to))
  -- GROUP BY over every shard, groups merged and ordered by the router
  con:query(string.format(
    "SELECT k %% 10 AS g, COUNT(*), SUM(k) FROM sbtest%d WHERE id BETWEEN %d AND %d GROUP BY g ORDER BY g",
    t, from, to))
  -- top-N over every shard: k-way merge of each shard's first 10
  con:query(string.format("SELECT id, k FROM sbtest%d WHERE id BETWEEN %d AND %d ORDER BY k DESC, id LIMIT 10",
    t, from, to))
  -- join of two tables of the binding group on id: runs whole on each shard
  local u = pick()
  if u == t then
    u = hash_tables[(t == hash_tables[1]) and 2 or 1]
  end
  con:query(string.format(
    "SELECT COUNT(*), SUM(a.k + b.k) FROM sbtest%d a JOIN sbtest%d b ON a.id = b.id WHERE a.id BETWEEN %d AND %d",
    t, u, from, to))
end
