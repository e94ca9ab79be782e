@_exported import IsletRender
