// The sqlite3 workload's SQL script (see program_inputs.hpp).
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

std::string generated_sql_script(std::uint64_t seed, unsigned work_percent) {
  GeneratedText text(seed);
  const std::uint64_t rows = scaled_work(60000, work_percent);
  std::string sql = "-- allocstress prog-sqlite3: inserts, an index, queries (generated, seed " + std::to_string(seed) + ")\n"
                    "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, category INTEGER, price REAL, note TEXT);\n"
                    "BEGIN;\n";
  for (std::uint64_t i = 0; i < rows; ++i)
    sql += "INSERT INTO items(name, category, price, note) VALUES('" + text.phrase(2) + "', " + std::to_string(text.uniform(0, 499)) +
           ", " + std::to_string(text.uniform(1, 100000)) + " / 100.0, '" + text.phrase(unsigned(text.uniform(1, 12))) + "');\n";
  sql += "COMMIT;\n"
         "CREATE TABLE orders(id INTEGER PRIMARY KEY, item INTEGER, quantity INTEGER);\n"
         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + std::to_string(rows * 2) + ")\n"
         "  INSERT INTO orders(item, quantity) SELECT (i * 7919) % " + std::to_string(rows) + " + 1, i % 13 + 1 FROM n;\n"
         "CREATE INDEX items_by_category ON items(category, price);\n"
         "CREATE INDEX orders_by_item ON orders(item);\n"
         "SELECT category, count(*), round(avg(price), 2), max(length(note)) FROM items GROUP BY category ORDER BY 2 DESC, 1 LIMIT 3;\n"
         "SELECT i.category, sum(o.quantity * i.price) AS revenue FROM orders o JOIN items i ON i.id = o.item\n"
         "  GROUP BY i.category ORDER BY revenue DESC LIMIT 3;\n"
         "SELECT count(DISTINCT name), length(group_concat(note, ';')) FROM (SELECT name, note FROM items ORDER BY note, name LIMIT 20000);\n"
         "UPDATE items SET note = note || ' ' || name WHERE category % 7 = 0;\n"
         "DELETE FROM items WHERE price < 100;\n"
         "SELECT count(*), total(price) FROM items WHERE category BETWEEN 100 AND 200;\n";
  return sql;
}

}  // namespace allocstress
