sweep base.yaml --command check --db "$tmp/db" --zip --axis 'm:problem.instance.M=2,4' --axis 'n:problem.instance.N=2,4,8'
