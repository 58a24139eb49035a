/* ciot info's sections of the kernel chosen per source file (info_choice.c). */
#ifndef CIOT_INFO_CHOICE_H
#define CIOT_INFO_CHOICE_H

/* Per source file, op and batch regime at threads: the chosen kernel and its layout, or (with_why) why. */
void ciot_info_choices(unsigned cpu, int threads, int with_why);

/* The placement domains and the CPU kinds (pools/place.h), one line each. */
void ciot_info_domains(void);

#endif
