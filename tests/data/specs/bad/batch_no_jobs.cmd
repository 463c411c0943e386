batch batch_no_jobs.yaml --db "$tmp/db"
