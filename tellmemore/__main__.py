from tellmemore.cli import main

main()
