from kgqa.cli import main

main()
