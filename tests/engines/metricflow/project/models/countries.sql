select * from read_csv('{{ env_var("FLOE_CSV_DIR") }}/countries.csv', header = true)
