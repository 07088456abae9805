// libmosquitto (Debian: libmosquitto-dev), imported by TapgridMQTT alone.
#include <mosquitto.h>
#include <mqtt_protocol.h>
