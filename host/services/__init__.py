"""Operations the handlers and the CLI share: navigation help, fetch, crawl, schedule, liveness, WARC."""
