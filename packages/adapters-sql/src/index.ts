// The SQL store is built by the SQL-store issue; see README.md.
export {}
