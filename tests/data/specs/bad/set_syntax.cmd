check base.yaml --set 'architecture[0=1' --set 'mapping]=2'
