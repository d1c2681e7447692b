-- What mtr's own bootstrap gives its servers and --extern does not: the mtr schema with
-- mtr.add_suppression() (tests call it), and a clean slate before each test. mtr restarts its own
-- server after a failed test; against an --extern server a test that fails leaves its tables,
-- databases, users and GLOBAL changes behind and every later test trips over them.
-- mtr.reset_for_test() undoes that: MtrSubsetIT runs it before each test (MYSQL_TEST wrapper),
-- always directly on the server. Statements are separated by lines holding only '//'.
DROP DATABASE IF EXISTS mtr
//
CREATE DATABASE mtr
//
CREATE TABLE mtr.test_suppressions (pattern VARCHAR(255)) ENGINE=MyISAM
//
CREATE PROCEDURE mtr.add_suppression(pattern VARCHAR(255))
  INSERT INTO mtr.test_suppressions (pattern) VALUES (pattern)
//
-- the server's GLOBAL values as started: a test's leftover changes are set back
CREATE TABLE mtr.global_defaults ENGINE=MyISAM
  AS SELECT variable_name, variable_value FROM information_schema.GLOBAL_VARIABLES
//
CREATE PROCEDURE mtr.reset_for_test()
BEGIN
  DECLARE done INT DEFAULT 0;
  DECLARE stmt TEXT;
  DECLARE leftovers CURSOR FOR
    SELECT CONCAT('SET GLOBAL ', d.variable_name, ' = ',
                  IF(d.variable_value REGEXP '^-?[0-9]+$', d.variable_value, QUOTE(d.variable_value)))
      FROM mtr.global_defaults d JOIN information_schema.GLOBAL_VARIABLES g USING (variable_name)
      WHERE NOT (g.variable_value <=> d.variable_value)
    UNION ALL
    SELECT CONCAT('DROP DATABASE `', REPLACE(schema_name, '`', '``'), '`') FROM information_schema.SCHEMATA
      WHERE schema_name NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'mtr')
    UNION ALL
    SELECT CONCAT('DROP USER ', QUOTE(user), '@', QUOTE(host)) FROM mysql.user
      WHERE user NOT IN ('root', 'mariadb.sys', '') AND is_role = 'N'
    UNION ALL
    SELECT CONCAT('DROP ROLE ', QUOTE(user)) FROM mysql.user WHERE is_role = 'Y';
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN leftovers;
  each_leftover: LOOP
    FETCH leftovers INTO stmt;
    IF done THEN
      LEAVE each_leftover;
    END IF;
    BEGIN
      -- read-only and self-changing variables (positions, counters) cannot or need not be set
      DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END;
      SET @mtr_reset = stmt;
      PREPARE s FROM @mtr_reset;
      EXECUTE s;
      DEALLOCATE PREPARE s;
    END;
  END LOOP;
  CLOSE leftovers;
  CREATE DATABASE test;
  TRUNCATE mtr.test_suppressions;
END
//
CALL mtr.reset_for_test()
