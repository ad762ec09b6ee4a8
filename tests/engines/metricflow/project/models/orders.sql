select * from read_csv('{{ env_var("FLOE_CSV_DIR") }}/orders.csv', header = true)
