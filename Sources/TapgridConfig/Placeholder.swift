// TapgridConfig
