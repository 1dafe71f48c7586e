/* Legacy 8259 interrupt controllers (drivers/pic8259.c). */
#ifndef DRIVERS_PIC8259_H
#define DRIVERS_PIC8259_H

#include <stdint.h>

/* Remap IRQ 0..15 to vectors base..base+15, all masked. */
void pic_init(uint8_t base);
void pic_unmask(unsigned irq);
void pic_mask_all(void);
void pic_eoi(unsigned irq);
/* Acknowledge whatever is in service (after aborting a handler). */
void pic_eoi_in_service(void);
unsigned long pic_spurious_count(void);

#endif
