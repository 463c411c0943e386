sweep base.yaml --command check --db "$tmp/db" --axis 'd:problem.instance.densities.A.density=0:1:+1e-9'
