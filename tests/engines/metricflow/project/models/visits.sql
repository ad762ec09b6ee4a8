select * from read_csv('{{ env_var("FLOE_CSV_DIR") }}/visits.csv', header = true)
