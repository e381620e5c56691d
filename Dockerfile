# The dashboard in a container, for serving a class or a hosted demo (README, "Serving a class"):
#   docker build -t ldpcore .
#   docker run --rm -p 8501:8501 ldpcore          # then open http://<host>:8501
# It installs the pinned requirements and ldpcore itself, and serves app.py on 0.0.0.0:8501 as an
# unprivileged user; Docker asks Streamlit's /_stcore/health for the container's health.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Debian's Chromium: kaleido draws the charts' SVG, PDF and PNG exports in it (ui/chart_export.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-liberation \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt ./
RUN python -m pip install -r requirements.txt
COPY pyproject.toml README.md LICENSE ./
COPY ldpcore ./ldpcore
RUN python -m pip install --no-deps . && rm -rf build ldpcore.egg-info
COPY app.py ./
COPY .streamlit ./.streamlit
COPY app_pages ./app_pages
COPY ui ./ui
COPY assets/esa.svg assets/icon.png ./assets/

RUN useradd --create-home --uid 10001 ldpcore
USER ldpcore
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"]

# .streamlit/config.toml keeps XSRF protection, the 25 MB upload limit and no telemetry; the address printed for
# the students is the container's host: pass --browser.serverAddress NAME after the image name to change it.
ENTRYPOINT ["python", "-m", "streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501"]
CMD []
