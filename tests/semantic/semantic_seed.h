/*
 * semantic_seed.h - the small warehouse of the semantic unit tests
 * (test_semantic_query.c, test_semantic_sql.c): orders, customers,
 * countries, account balances and visits, with hand-checkable numbers.
 */
#ifndef FLOE_TEST_SEMANTIC_SEED_H
#define FLOE_TEST_SEMANTIC_SEED_H

static const char *const SEED[] = {
    "CREATE TABLE orders (order_id int, customer_id int, order_date date, status varchar, "
    "gross_amount decimal(10,2), discount_applied decimal(10,2), return_amount decimal(10,2))",
    "CREATE TABLE customers (customer_id int, region varchar, country_code varchar, signup_date "
    "date)",
    "CREATE TABLE countries (country_code varchar, continent varchar)",
    "INSERT INTO customers VALUES (1,'EU','DE',DATE '2023-12-01'),(2,'EU','FR',DATE "
    "'2024-01-15'),(3,'US','US',DATE '2024-02-01'),(4,'APAC','JP',DATE '2024-02-20')",
    "INSERT INTO countries VALUES ('DE','Europe'),('FR','Europe'),('US','America'),"
    "('JP','Asia')",
    "INSERT INTO orders VALUES (1,1,DATE '2024-01-05','completed',100.00,10.00,0.00),"
    "(2,2,DATE '2024-01-20','completed',200.00,0.00,50.00),"
    "(3,3,DATE '2024-02-03','cancelled',50.00,5.00,0.00),"
    "(4,1,DATE '2024-02-14','completed',300.00,30.00,20.00),"
    "(5,4,DATE '2024-03-01','placed',80.00,0.00,0.00),"
    "(6,3,DATE '2024-03-15','completed',120.00,12.00,0.00),"
    "(7,2,DATE '2024-03-31','completed',60.00,0.00,60.00)",
    "CREATE TABLE account_balances (account_id int, customer_id int, balance_date date, balance "
    "decimal(10,2))",
    "INSERT INTO account_balances VALUES (1,1,DATE '2024-01-10',100),(2,2,DATE '2024-01-10',50),"
    "(1,1,DATE '2024-01-31',120),(2,2,DATE '2024-01-31',70),(1,1,DATE '2024-02-15',90),"
    "(3,3,DATE '2024-02-15',10)",
    "CREATE TABLE visits (visit_id int, customer_id int, visit_date date, channel varchar)",
    "INSERT INTO visits VALUES (1,1,DATE '2024-01-01','ads'),(2,1,DATE '2024-01-03','search'),"
    "(3,2,DATE '2024-01-02','ads'),(4,3,DATE '2024-01-30','ads'),(5,3,DATE '2024-02-02','direct'),"
    "(6,4,DATE '2024-02-20','ads')",
};

#endif
