// TapgridSystem
