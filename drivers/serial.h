/* 16550 UART on COM1 as a console (drivers/serial.c). */
#ifndef DRIVERS_SERIAL_H
#define DRIVERS_SERIAL_H

#include <stdbool.h>

/* Probe and program COM1 (115200 8N1). False when no UART answers. */
bool serial_init(void);
/* Bytes dropped because the transmitter never became ready. */
unsigned long serial_dropped(void);

#endif
