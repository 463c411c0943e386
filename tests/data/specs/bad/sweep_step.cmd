sweep base.yaml --command check --db "$tmp/db" --axis 'k:problem.instance.K=1:64:y2'
