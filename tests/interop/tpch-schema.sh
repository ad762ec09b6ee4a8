# tpch-schema.sh — sourced by test_tpch*.sh and bench/tpch.sh: the TPC-H tables and their column types
# (TPC-H spec 1.4: identifiers as bigint, except the small nation/region keys and integer columns; money as
# decimal(15,2); dates as date; text as varchar), in `floe load --schema` syntax, all NOT NULL as the spec says.
# shellcheck disable=SC2034
TPCH_TABLES="nation region part supplier partsupp customer orders lineitem"
declare -A TPCH_SCHEMA=(
  [nation]="n_nationkey:int not null,n_name:string not null,n_regionkey:int not null,n_comment:string not null"
  [region]="r_regionkey:int not null,r_name:string not null,r_comment:string not null"
  [part]="p_partkey:long not null,p_name:string not null,p_mfgr:string not null,p_brand:string not null,p_type:string not null,p_size:int not null,p_container:string not null,p_retailprice:decimal(15,2) not null,p_comment:string not null"
  [supplier]="s_suppkey:long not null,s_name:string not null,s_address:string not null,s_nationkey:int not null,s_phone:string not null,s_acctbal:decimal(15,2) not null,s_comment:string not null"
  [partsupp]="ps_partkey:long not null,ps_suppkey:long not null,ps_availqty:int not null,ps_supplycost:decimal(15,2) not null,ps_comment:string not null"
  [customer]="c_custkey:long not null,c_name:string not null,c_address:string not null,c_nationkey:int not null,c_phone:string not null,c_acctbal:decimal(15,2) not null,c_mktsegment:string not null,c_comment:string not null"
  [orders]="o_orderkey:long not null,o_custkey:long not null,o_orderstatus:string not null,o_totalprice:decimal(15,2) not null,o_orderdate:date not null,o_orderpriority:string not null,o_clerk:string not null,o_shippriority:int not null,o_comment:string not null"
  [lineitem]="l_orderkey:long not null,l_partkey:long not null,l_suppkey:long not null,l_linenumber:int not null,l_quantity:decimal(15,2) not null,l_extendedprice:decimal(15,2) not null,l_discount:decimal(15,2) not null,l_tax:decimal(15,2) not null,l_returnflag:string not null,l_linestatus:string not null,l_shipdate:date not null,l_commitdate:date not null,l_receiptdate:date not null,l_shipinstruct:string not null,l_shipmode:string not null,l_comment:string not null"
)
# Row counts at SF0.01 (dbgen): nation and region are fixed, the rest scale.
declare -A TPCH_ROWS_SF001=([nation]=25 [region]=5 [part]=2000 [supplier]=100 [partsupp]=8000 [customer]=1500 [orders]=15000 [lineitem]=60175)
