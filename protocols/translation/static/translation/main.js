// The translation page (MQM, ESA, DA): entry point.
