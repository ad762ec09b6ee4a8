select * from read_csv('{{ env_var("FLOE_CSV_DIR") }}/account_balances.csv', header = true)
