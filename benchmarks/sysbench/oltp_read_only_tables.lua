-- sysbench oltp_read_only over a chosen subset of the sbtest tables, for scale-out.sh.
--
--   sysbench benchmarks/sysbench/oltp_read_only_tables.lua --tables=12 --table-list=2,6,10 ... run
--   sysbench benchmarks/sysbench/oltp_read_only_tables.lua --tables=12 --table-list=2,6,10 ... prepare
--
-- --tables is the number of tables of the whole data set (sbtest1..N); --table-list names the ones
-- this process uses (comma-separated numbers; empty, the default, means all of 1..N). Each
-- statement group of a transaction picks one table of the list uniformly at random, then ids with
-- --rand-type, exactly as oltp_read_only does over 1..N: with an empty list this script issues
-- the same statements with the same distribution as the stock oltp_read_only. `prepare` creates
-- and fills only the listed tables, with oltp_common's own create_table.
--
-- Why a script: oltp_common picks tables with a local function over 1..--tables and prepares
-- every statement on every table, so a sysbench process cannot be limited to the tables one
-- shard holds (the "ideal" of the scale-out experiment: one sysbench per shard, straight to it).
-- The statement texts below are oltp_common's (sysbench 1.0.20) read-only ones.

require("oltp_read_only") -- prepare_statements() and event(); through it oltp_common

sysbench.cmdline.options.table_list =
   {"Comma-separated sbtest table numbers to use (empty: all of 1..--tables)", ""}

local listed

local function table_list()
   if listed == nil then
      listed = {}
      if sysbench.opt.table_list == nil or sysbench.opt.table_list == "" then
         for t = 1, sysbench.opt.tables do
            listed[#listed + 1] = t
         end
      else
         for n in string.gmatch(sysbench.opt.table_list, "[^,]+") do
            local t = tonumber(n)
            if t == nil or t < 1 or t > sysbench.opt.tables or t ~= math.floor(t) then
               error("--table-list: '" .. n .. "' is not a table number in 1.." ..
                        sysbench.opt.tables)
            end
            listed[#listed + 1] = t
         end
      end
      if #listed == 0 then
         error("--table-list names no table")
      end
   end
   return listed
end

local function get_table_num()
   local l = table_list()
   return l[sysbench.rand.uniform(1, #l)]
end

local function get_id()
   return sysbench.rand.default(1, sysbench.opt.table_size)
end

local t = sysbench.sql.type
local stmt_defs = {
   point_selects = {"SELECT c FROM sbtest%u WHERE id=?", t.INT},
   simple_ranges = {"SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?", t.INT, t.INT},
   sum_ranges = {"SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?", t.INT, t.INT},
   order_ranges = {"SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", t.INT, t.INT},
   distinct_ranges = {"SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
                      t.INT, t.INT},
}

-- oltp_common's version prepares on every table 1..N; here only on the listed ones
function prepare_for_each_table(key)
   local def = stmt_defs[key]
   if def == nil then
      error("oltp_read_only_tables.lua does not know the statement group " .. key)
   end
   for _, tnum in ipairs(table_list()) do
      stmt[tnum][key] = con:prepare(string.format(def[1], tnum))
      local nparam = #def - 1
      if nparam > 0 then
         param[tnum][key] = {}
         for p = 1, nparam do
            param[tnum][key][p] = stmt[tnum][key]:bind_create(def[p + 1])
         end
         stmt[tnum][key]:bind_param(unpack(param[tnum][key]))
      end
   end
end

function execute_point_selects()
   local tnum = get_table_num()
   for _ = 1, sysbench.opt.point_selects do
      param[tnum].point_selects[1]:set(get_id())
      stmt[tnum].point_selects:execute()
   end
end

local function execute_range(key)
   local tnum = get_table_num()
   for _ = 1, sysbench.opt[key] do
      local id = get_id()
      param[tnum][key][1]:set(id)
      param[tnum][key][2]:set(id + sysbench.opt.range_size - 1)
      stmt[tnum][key]:execute()
   end
end

function execute_simple_ranges() execute_range("simple_ranges") end
function execute_sum_ranges() execute_range("sum_ranges") end
function execute_order_ranges() execute_range("order_ranges") end
function execute_distinct_ranges() execute_range("distinct_ranges") end

-- oltp_common registered its own cmd_prepare (all of 1..N) by value; replace the registration
local function prepare_listed()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local l = table_list()
   for i = sysbench.tid % sysbench.opt.threads + 1, #l, sysbench.opt.threads do
      create_table(drv, con, l[i])
   end
end

sysbench.cmdline.commands.prepare = {prepare_listed, sysbench.cmdline.PARALLEL_COMMAND}
