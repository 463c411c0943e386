energy energy_class.yaml
