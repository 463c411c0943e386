batch batch_jobs.yaml --db "$tmp/db"
