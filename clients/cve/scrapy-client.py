#!/usr/bin/env python3
"""authmock adapter for Scrapy, for the CVE replay (ci/cve-replay).

Usage: python3 clients/cve/scrapy-client.py [--send header|http-user|cookie]

A one-request spider run by `CrawlerProcess`, the way Scrapy's "Run Scrapy from a script" page teaches
(https://docs.scrapy.org/en/latest/topics/practices.html#run-scrapy-from-a-script). `--send` picks how
AUTHMOCK_USER/AUTHMOCK_PASSWORD are sent, each a way Scrapy's documentation shows:

  header     an `Authorization: Basic` header of the request's own (`scrapy.Request(url, headers=…)`), the
             header CVE-2024-3574 is about (the default)
  http-user  the spider's `http_user`/`http_pass` attributes, read by HttpAuthMiddleware (CVE-2021-41125;
             `http_auth_domain` is left unset, as every spider written before 2.5.1 has it)
  cookie     `scrapy.Request(url, cookies={"authmock-session": password})`, Scrapy's documented way to send a
             cookie with a request (CVE-2022-0577: before 2.6.0 such cookies were copied into the redirected
             request, whatever its domain)

Redirects are followed by Scrapy's RedirectMiddleware (on by default). `HTTPERROR_ALLOW_ALL` hands every final status to the callback, which records it; retries and the
telnet console are off so one run is one fetch. Plain HTTP, or HTTPS with Scrapy's default TLS (it checks no
certificate, so AUTHMOCK_CA_FILE has nothing to go to).

A clean failure is a request that ends in the errback, where Scrapy documents a failed download arrives
(https://docs.scrapy.org/en/latest/topics/request-response.html#using-errbacks-to-catch-exceptions-in-request-processing);
anything else is a crash (adapter_support.exit_with: the traceback, exit 70).
Version: python -c 'import scrapy; print(scrapy.__version__)'
"""
import argparse
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # clients/, for adapter_support

import scrapy
from scrapy.crawler import CrawlerProcess

from adapter_support import env, exit_with, report


class RequestFailed(Exception):
    """The errback's failure, as one line."""


class OneRequest(scrapy.Spider):
    name = "authmock"
    codes = []
    failures = []

    send = "header"

    def start_requests(self):
        headers = {}
        user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", "")
        if user is not None and self.send == "header":
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        cookies = {"authmock-session": password} if user is not None and self.send == "cookie" else None
        yield scrapy.Request(env("AUTHMOCK_URL"), method=env("AUTHMOCK_METHOD", "GET"), headers=headers, cookies=cookies,
                             callback=self.parse, errback=self.failed, dont_filter=True)

    def parse(self, response):
        OneRequest.codes.append(response.status)

    def failed(self, failure):
        OneRequest.failures.append(f"{failure.type.__name__}: {failure.value}")


def main(send):
    OneRequest.send = send
    if send == "http-user" and env("AUTHMOCK_USER") is not None:
        OneRequest.http_user = env("AUTHMOCK_USER")
        OneRequest.http_pass = env("AUTHMOCK_PASSWORD", "")
    settings = {
        "LOG_LEVEL": "ERROR",
        "HTTPERROR_ALLOW_ALL": True,
        "RETRY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
    }
    if env("AUTHMOCK_TIMEOUT"):
        settings["DOWNLOAD_TIMEOUT"] = float(env("AUTHMOCK_TIMEOUT"))
    process = CrawlerProcess(settings=settings)
    process.crawl(OneRequest)
    process.start()
    if OneRequest.failures:
        raise RequestFailed(OneRequest.failures[0])
    if not OneRequest.codes:
        raise RuntimeError("the spider ended without a response or a failure")
    return report(OneRequest.codes)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--send", choices=["header", "http-user", "cookie"], default="header")
    send = parser.parse_args().send
    exit_with(lambda: main(send), errors=(RequestFailed,))
