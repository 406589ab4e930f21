const D=require('better-sqlite3');const fs=require('fs');
const [H,cv]=process.argv.slice(2);
const rows=[];
for(const f of fs.readdirSync(H+'/telemetry').filter(f=>f.endsWith('.sqlite'))){
 const db=new D(H+'/telemetry/'+f,{readonly:true});
 try{ for(const r of db.prepare('select at,direction,performative,content_type,decision,sender,receiver,reply_with,in_reply_to from envelopes where conversation_id=?').all(cv)) rows.push({a:f.replace('.sqlite',''),...r}); }catch(e){}
}
rows.sort((x,y)=>x.at-y.at);
for(const x of rows) console.log(new Date(x.at).toISOString().slice(11,23),x.a.padEnd(16),x.direction.padEnd(4),x.performative,x.content_type||'',x.decision,(x.sender||'')+'>'+(x.receiver||''),(x.reply_with||'').slice(4,12),(x.in_reply_to||'').slice(4,12));
