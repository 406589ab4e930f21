const D=require('better-sqlite3');
const [H,...cvs]=process.argv.slice(2);
const db=new D(H+'/telemetry/Presenter.sqlite',{readonly:true});
for(const cv of cvs){ const r=db.prepare("select body from envelopes where conversation_id=? and direction='out' limit 1").get(cv); console.log(cv.slice(5,13), r && JSON.parse(r.body).content.user, r && JSON.parse(r.body).content.text);}
