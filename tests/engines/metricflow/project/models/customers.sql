select * from read_csv('{{ env_var("FLOE_CSV_DIR") }}/customers.csv', header = true)
